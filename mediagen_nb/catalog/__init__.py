"""Declarative catalog of every model, parameter and limit of the service (no I/O).

One catalog feeds the validators, the forms, the sweeps, the emulator and the docs' family
pages. A family is its entry in ``FAMILIES``, its parameters in ``PARAMS`` and, when its
controls are not one per parameter, a form of ``FormControl``; ``register_family`` adds one.
"""

from mediagen_nb.catalog._assets import asset_uri, parse_asset_uri
from mediagen_nb.catalog._families import (
    FAMILIES,
    Family,
    Kind,
    families,
    family,
    family_for_model,
    family_for_path,
)
from mediagen_nb.catalog._forms import VALUE, FormControl
from mediagen_nb.catalog._labels import model_title
from mediagen_nb.catalog._params import PARAMS, AssetStatus, AssetType, Param, TaskStatus, options
from mediagen_nb.catalog._registry import params_for, register_family
from mediagen_nb.catalog._text import TEXT_MODELS, TextModel, Vendor, text_model

__all__ = [
    "FAMILIES",
    "PARAMS",
    "TEXT_MODELS",
    "VALUE",
    "AssetStatus",
    "AssetType",
    "Family",
    "FormControl",
    "Kind",
    "Param",
    "TaskStatus",
    "TextModel",
    "Vendor",
    "asset_uri",
    "families",
    "family",
    "family_for_model",
    "family_for_path",
    "model_title",
    "options",
    "params_for",
    "parse_asset_uri",
    "register_family",
    "text_model",
]
