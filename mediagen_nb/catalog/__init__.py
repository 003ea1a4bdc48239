"""Declarative catalog of every model, parameter and limit of the service (no I/O).

One catalog feeds the validators, the forms, the sweeps, the emulator and the docs' family
pages. A family is its entry in ``FAMILIES``, its parameters in ``PARAMS`` and, when its
controls are not one per parameter, its form in ``FORMS``; ``register_family`` adds one.
"""

from mediagen_nb.catalog._assets import (
    ASSET_ACTIVE,
    ASSET_FAILED,
    ASSET_LIBRARIES,
    ASSET_PENDING_STATES,
    AssetLibrary,
    asset_uri,
    library_for_id,
    parse_asset_uri,
)
from mediagen_nb.catalog._families import (
    FAMILIES,
    REFERENCE_FIELDS,
    Family,
    Kind,
    families,
    family,
    family_for_model,
    family_for_path,
)
from mediagen_nb.catalog._form_body import EXTRA_KEY
from mediagen_nb.catalog._forms import FORMS, VALUE, FormControl, best_option
from mediagen_nb.catalog._labels import (
    MODEL_TITLES,
    ORIENTATIONS,
    SEEDANCE_SCENARIO_LABELS,
    STARVIDEOS_MODE_LABELS,
    model_title,
    option_label,
    param_label,
)
from mediagen_nb.catalog._params import (
    PARAMS,
    TERMINAL_STATUSES,
    AssetStatus,
    AssetType,
    Param,
    TaskStatus,
    generic_params,
    options,
)
from mediagen_nb.catalog._registry import (
    form_for,
    params_for,
    register_family,
    revision,
)
from mediagen_nb.catalog._text import (
    TEXT_MODELS,
    VARIANT_MEANING,
    VENDOR_TITLE,
    TextModel,
    Vendor,
    text_model,
    text_vendor_of,
)

__all__ = [
    "ASSET_ACTIVE",
    "ASSET_FAILED",
    "ASSET_LIBRARIES",
    "ASSET_PENDING_STATES",
    "EXTRA_KEY",
    "FAMILIES",
    "FORMS",
    "MODEL_TITLES",
    "ORIENTATIONS",
    "PARAMS",
    "REFERENCE_FIELDS",
    "SEEDANCE_SCENARIO_LABELS",
    "STARVIDEOS_MODE_LABELS",
    "TERMINAL_STATUSES",
    "TEXT_MODELS",
    "VALUE",
    "VARIANT_MEANING",
    "VENDOR_TITLE",
    "AssetLibrary",
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
    "best_option",
    "families",
    "family",
    "family_for_model",
    "family_for_path",
    "form_for",
    "generic_params",
    "library_for_id",
    "model_title",
    "option_label",
    "options",
    "param_label",
    "params_for",
    "parse_asset_uri",
    "register_family",
    "revision",
    "text_model",
    "text_vendor_of",
]
