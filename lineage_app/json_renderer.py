"""The API's JSON renderer: DRF's `JSONRenderer` output, written by orjson.

A 2,000-node lineage answer is megabytes of JSON; orjson writes it about three times as fast as DRF's
renderer (the standard library's encoder) does (`bench/json_render.py`). The bytes are DRF's: compact
separators, UTF-8, U+2028 and U+2029 escaped; a value orjson does not write natively (a datetime, a
Decimal, a lazy translation, a UUID…) goes through DRF's own encoder. Asked to indent (`Accept:
application/json; indent=4`, the browsable API) or handed what orjson refuses (an integer past 64
bits), it renders as DRF's renderer does. Two differences: a non-finite float is written as `null`,
where DRF's strict renderer fails the request; and a float that needs an exponent is spelled
otherwise (`0.00001` for `1e-05`), the same number.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
_SEPARATORS = ((b"\xe2\x80\xa8", b"\\u2028"), (b"\xe2\x80\xa9", b"\\u2029"))


class FastJSONRenderer(JSONRenderer):
    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Mapping[str, Any] | None = None
    ) -> bytes:
        if data is None:
            return b""
        if self.get_indent(accepted_media_type or "", renderer_context or {}) is not None or not self.compact:
            return super().render(data, accepted_media_type, renderer_context)
        try:
            body = orjson.dumps(data, default=JSONEncoder().default, option=_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError is one
            return super().render(data, accepted_media_type, renderer_context)
        for raw, escaped in _SEPARATORS:
            if raw in body:
                body = body.replace(raw, escaped)
        return body
