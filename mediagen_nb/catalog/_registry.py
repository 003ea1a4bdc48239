"""The catalog's lookups by family: parameter tables, form declarations, and adding a family.

``register_family`` adds a family (with its parameters, form and model titles) at run time
and returns the function that takes it out again; ``revision()`` changes with every such
change, so code that caches what it derives from the catalog can key the cache on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from mediagen_nb.catalog._families import Family, add_family, family, remove_family
from mediagen_nb.catalog._forms import FORMS, FormControl
from mediagen_nb.catalog._labels import MODEL_TITLES
from mediagen_nb.catalog._params import PARAMS, Param, generic_params

_revision = [0]


def revision() -> int:
    """A number that changes whenever a family is registered or removed."""
    return _revision[0]


def params_for(family_id: str) -> tuple[Param, ...]:
    """The parameters a form shows for a family (documented table or generic set).

    Args:
        family_id: The family's id.

    Returns:
        Its parameter table, or the generic set for a partly documented family.

    Raises:
        KeyError: No such family.
    """
    fam = family(family_id)
    if fam.id in PARAMS:
        return PARAMS[fam.id]
    return generic_params(fam.duration_range)


def form_for(family_id: str) -> tuple[FormControl, ...]:
    """A family's form controls in order, each with its ``Param`` resolved.

    Without a declaration in ``FORMS``: one control per parameter; a partly documented
    family shows only the reference fields it accepts.

    Args:
        family_id: The family's id.

    Returns:
        The controls, each with its ``Param`` resolved.

    Raises:
        KeyError: No such family, or a control names a parameter its table lacks.
    """
    fam = family(family_id)
    params = {p.name: p for p in params_for(fam.id)}
    declared = FORMS.get(fam.id)
    if declared is None:
        declared = tuple(
            FormControl(p)
            for p in params.values()
            if fam.documented or p.type not in ("url", "url_list") or p.name in fam.reference_fields
        )
    resolved = []
    for control in declared:
        param = control.param
        if isinstance(param, str) and param not in params:
            raise KeyError(f"form of {fam.id!r}: no parameter {param!r} in its table")
        resolved.append(
            replace(control, param=params[param]) if isinstance(param, str) else control
        )
    return tuple(resolved)


def register_family(
    fam: Family,
    params: tuple[Param, ...] | None = None,
    form: tuple[FormControl, ...] | None = None,
    titles: dict[str, str] | None = None,
) -> Callable[[], None]:
    """Add a family to the catalog at run time (forms, validation and docs follow).

    Args:
        fam: The family.
        params: Its parameter table; None: the generic set.
        form: Its form declaration; None: one control per parameter.
        titles: Readable titles of its models.

    Returns:
        The function that removes the family again.

    Raises:
        ValueError: Its id, create path or a model is already in the catalog.
    """
    add_family(fam)
    if params is not None:
        PARAMS[fam.id] = params
    if form is not None:
        FORMS[fam.id] = form
    added_titles = {m: t for m, t in (titles or {}).items() if m not in MODEL_TITLES}
    MODEL_TITLES.update(added_titles)
    _revision[0] += 1

    def remove() -> None:
        remove_family(fam.id)
        if params is not None:
            PARAMS.pop(fam.id, None)
        if form is not None:
            FORMS.pop(fam.id, None)
        for model in added_titles:
            MODEL_TITLES.pop(model, None)
        _revision[0] += 1

    return remove
