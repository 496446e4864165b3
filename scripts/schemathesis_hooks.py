"""What schemathesis cannot learn from /openapi.yaml, for requests it generates as valid.

- A receipt image. The document says an upload's `file` part is an image (its `encoding` lists the
  media types) and `/v1/analyze`'s `image` is an image's bytes in base64; no JSON Schema can say
  "bytes that decode as a JPEG", so schemathesis draws random bytes, which the server rightly
  refuses (415, 422). A real receipt from TestReceipts/ is registered as what an image/jpeg is
  (schemathesis' own mechanism for media types), and put in a valid `/v1/analyze` body's `image`.
- An e-mail message. `/v1/inbound-email` takes a raw RFC 822 message (`message/rfc822`), which
  schemathesis has no serializer for: the HTML-only messages of TestReceipts/email are what such a
  body is (read without OCR, so they cost the run little).
- An idempotency key stands for one image: the server answers 422 when a key comes back with other
  bytes (as the document says). Schemathesis draws keys from a small set ("0", "a"…) and reuses
  them across unrelated uploads, so a valid key is replaced by a fresh one (a UUID).
- An upload's `metadata` is given once: as `?metadata=` or as a multipart part (the document says
  both is a 400, which no JSON Schema can express across a query and a body): where a valid case
  draws both, the query's is left out.
- A correction's If-Match is the ETag the server gave for that expense's current version; any other
  string is rightly answered 412 (as the document says). A valid one is left out (the change then
  applies to the expense as stored), which is as valid: no JSON Schema can name the current ETag.

Only the parts of a case generated as valid are changed (a valid value for a valid one): a case
drawn to be invalid somewhere stays exactly as invalid. Loaded by scripts/schemathesis-serve
through SCHEMATHESIS_HOOKS.
"""
import base64
import pathlib
import uuid

import schemathesis
from hypothesis import strategies as st
from schemathesis.core.parameters import ParameterLocation

RECEIPT = (pathlib.Path(__file__).resolve().parent.parent / "TestReceipts" / "uk-parking.jpg").read_bytes()

schemathesis.openapi.media_type("image/jpeg", st.just(RECEIPT))

EMAILS = [(pathlib.Path(__file__).resolve().parent.parent / "TestReceipts" / "email" / f"{name}.eml").read_bytes()
          for name in ("fuel-app-html", "parking-app-jsonld", "ride-nested-table", "logo-only")]
schemathesis.openapi.media_type("message/rfc822", st.sampled_from(EMAILS))


def _valid(case, location):
    """Whether the case's part at `location` was generated as valid."""
    meta = case.meta
    if meta is None:
        return False
    component = meta.components.get(location)
    return component is not None and component.mode.is_positive


@schemathesis.hook
def map_case(context, case):
    route = (case.operation.method.upper(), case.operation.path)
    if route == ("POST", "/v1/analyze") and _valid(case, ParameterLocation.BODY) and isinstance(case.body, dict) \
            and isinstance(case.body.get("image"), str):
        case.body = {**case.body, "image": base64.b64encode(RECEIPT).decode("ascii")}
    elif route == ("POST", "/v1/receipts"):
        if _valid(case, ParameterLocation.HEADER) and "Idempotency-Key" in (case.headers or {}):
            case.headers = {**case.headers, "Idempotency-Key": str(uuid.uuid4())}
        if _valid(case, ParameterLocation.QUERY) and _valid(case, ParameterLocation.BODY) and "metadata" in (case.query or {}) \
                and isinstance(case.body, dict) and "metadata" in case.body:
            case.query = {k: v for k, v in case.query.items() if k != "metadata"}
    elif route == ("PATCH", "/v1/expenses/{id}") and _valid(case, ParameterLocation.HEADER) and "If-Match" in (case.headers or {}):
        case.headers = {k: v for k, v in case.headers.items() if k != "If-Match"}
    return case
