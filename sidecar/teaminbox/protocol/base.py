"""What every part of the wire contract uses: a method's and a notification's entry, the
bounds and checks of params, and params structured from the wire (anything malformed or
out of range is InvalidParams)."""

from __future__ import annotations

from typing import Any

import attrs
import cattrs

from ..errors import InvalidParams
from ..model import converter

MAX_LIMIT = 10_000
MAX_OFFSET = 2**31


def in_range(lo: int, hi: int) -> Any:
    def check(inst: Any, attr: attrs.Attribute[Any], value: int) -> None:
        if not lo <= value <= hi:
            raise InvalidParams(f"{attr.name} must be between {lo} and {hi}")

    return check


def nonempty(inst: Any, attr: attrs.Attribute[Any], value: str) -> None:
    if not value:
        raise InvalidParams(f"{attr.name} must not be empty")


@attrs.define
class Empty:
    pass


@attrs.define
class Method:
    name: str
    params: type
    result: type
    doc: str


@attrs.define
class Notification:
    name: str
    params: type
    doc: str


def structure(raw: Any, cls: type[Any]) -> Any:
    """Params from the wire; every failure is InvalidParams with one readable line."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InvalidParams("params must be an object")
    try:
        return converter.structure(raw, cls)
    except InvalidParams:
        raise
    except cattrs.BaseValidationError as err:
        raise InvalidParams(_explain(err)) from err
    except (TypeError, ValueError, OverflowError) as err:
        raise InvalidParams(str(err)) from err


def _explain(err: BaseException) -> str:
    if isinstance(err, cattrs.BaseValidationError):
        for sub in err.exceptions:
            if isinstance(sub, InvalidParams):
                return sub.message
        notes = cattrs.transform_error(err)
        return "; ".join(notes) if notes else str(err)
    return str(err)
