"""Image content blocks as a one-line placeholder: mime type, byte size and pixel dimensions.

Images in a session are base64 strings (often megabytes). Nothing here decodes a whole image:
the size comes from the length of the base64 text, and the dimensions from the first bytes of
the file (PNG, GIF and WebP need at most 30 bytes; JPEG needs the bytes up to its frame header,
looked for in growing prefixes up to :data:`JPEG_SCAN_LIMIT`). The raw base64 never reaches the
screen, and the declared ``mimeType`` (untrusted) is shown through :func:`safe_line`.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass
from typing import Any, Final

from rich.style import Style
from rich.text import Text

from pitui.core.units import format_bytes
from pitui.render.safe_text import safe_line

__all__ = [
    "JPEG_SCAN_LIMIT",
    "ImageInfo",
    "image_info",
    "image_placeholder",
    "sniff_dimensions",
]

#: Decoded bytes searched for a JPEG frame header (EXIF thumbnails can push it far in).
JPEG_SCAN_LIMIT: Final = 1 << 20
# Base64 characters decoded for the first look: enough for PNG/GIF/WebP and most JPEGs.
_FIRST_LOOK: Final = 4096

IMAGE_STYLE: Final = Style(color="magenta")
WARN_STYLE: Final = Style(color="yellow")

_MIME_OF_FORMAT: Final = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "GIF": "image/gif",
    "WebP": "image/webp",
}


@dataclass(frozen=True, slots=True)
class ImageInfo:
    """What can be said about an image block without decoding it."""

    mime_type: str | None  # as declared in the block (untrusted)
    byte_size: int | None  # decoded size, from the base64 length
    format: str | None  # detected from the magic bytes: PNG, JPEG, GIF, WebP
    width: int | None
    height: int | None
    problem: str | None = None  # "not base64", "no data", …

    @property
    def mismatch(self) -> bool:
        """The data is a known format other than the declared mime type."""
        if self.format is None or self.mime_type is None:
            return False
        declared = self.mime_type.strip().lower()
        expected = _MIME_OF_FORMAT[self.format]
        return declared != expected and not (self.format == "JPEG" and declared == "image/jpg")


def _base64_payload(data: str) -> str:
    """The base64 part of ``data`` (a ``data:`` URI is accepted too)."""
    if data.startswith("data:"):
        _, _, rest = data.partition(",")
        return rest
    return data


def _decoded_size(payload: str) -> int:
    stripped = payload.rstrip()
    unpadded = stripped.rstrip("=")
    pad = min(len(stripped) - len(unpadded), 2)
    return max(len(stripped) * 3 // 4 - pad, 0)


def _decode_prefix(payload: str, chars: int) -> bytes:
    """Decode the first ``chars`` base64 characters (rounded down to a whole quantum)."""
    chunk = payload[: chars - chars % 4] if len(payload) > chars else payload
    if len(chunk) % 4:
        chunk = chunk[: len(chunk) - len(chunk) % 4]
    return binascii.a2b_base64(chunk.encode("ascii", "strict"))


def _u16be(data: bytes, at: int) -> int:
    return (data[at] << 8) | data[at + 1]


def _u16le(data: bytes, at: int) -> int:
    return data[at] | (data[at + 1] << 8)


def _u24le(data: bytes, at: int) -> int:
    return data[at] | (data[at + 1] << 8) | (data[at + 2] << 16)


def _u32be(data: bytes, at: int) -> int:
    return int.from_bytes(data[at : at + 4], "big")


def _format_of(head: bytes) -> str | None:
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if head.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP"
    return None


def _png_size(head: bytes) -> tuple[int, int] | None:
    if len(head) >= 24 and head[12:16] == b"IHDR":
        return _u32be(head, 16), _u32be(head, 20)
    return None


def _gif_size(head: bytes) -> tuple[int, int] | None:
    return (_u16le(head, 6), _u16le(head, 8)) if len(head) >= 10 else None


def _webp_size(head: bytes) -> tuple[int, int] | None:
    chunk = head[12:16]
    if chunk == b"VP8X" and len(head) >= 30:
        return _u24le(head, 24) + 1, _u24le(head, 27) + 1
    if chunk == b"VP8L" and len(head) >= 25 and head[20] == 0x2F:
        bits = int.from_bytes(head[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 " and len(head) >= 30 and head[23:26] == b"\x9d\x01\x2a":
        return _u16le(head, 26) & 0x3FFF, _u16le(head, 28) & 0x3FFF
    return None


# Start-of-frame markers carry the dimensions; C4 (DHT), C8 (JPG) and CC (DAC) do not.
_SOF_MARKERS: Final = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
# Markers without a length field.
_STANDALONE: Final = frozenset({0x01, *range(0xD0, 0xDA)})


def _jpeg_size(data: bytes) -> tuple[int, int] | bool | None:
    """Dimensions, None if the data is not a valid JPEG, False if more bytes are needed."""
    pos = 2
    size = len(data)
    while True:
        while pos < size and data[pos] != 0xFF:
            pos += 1  # tolerate garbage between segments, as decoders do
        while pos < size and data[pos] == 0xFF:
            pos += 1  # fill bytes
        if pos >= size:
            return False
        marker = data[pos]
        pos += 1
        if marker in _STANDALONE:
            if marker == 0xD9:
                return None  # end of image before any frame
            continue
        if pos + 2 > size:
            return False
        length = _u16be(data, pos)
        if length < 2:
            return None
        if marker in _SOF_MARKERS:
            if pos + 7 > size:
                return False
            return _u16be(data, pos + 5), _u16be(data, pos + 3)
        if marker == 0xDA:
            return None  # scan data before a frame header: broken file
        pos += length


def sniff_dimensions(head: bytes) -> tuple[str | None, tuple[int, int] | None]:
    """(format, (width, height)) from the first bytes of an image file (not for JPEG's tail)."""
    fmt = _format_of(head)
    if fmt == "PNG":
        return fmt, _png_size(head)
    if fmt == "GIF":
        return fmt, _gif_size(head)
    if fmt == "WebP":
        return fmt, _webp_size(head)
    if fmt == "JPEG":
        found = _jpeg_size(head)
        return fmt, found if isinstance(found, tuple) else None
    return None, None


def image_info(data: object, mime_type: object = None) -> ImageInfo:
    """Look at an image block's ``data`` (base64) and ``mimeType`` without decoding it all."""
    mime = mime_type if isinstance(mime_type, str) else None
    if not isinstance(data, str) or not data:
        return ImageInfo(mime, None, None, None, None, "no data")
    payload = _base64_payload(data)
    size = _decoded_size(payload)
    try:
        head = _decode_prefix(payload, _FIRST_LOOK)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        return ImageInfo(mime, size, None, None, None, "not base64")
    fmt = _format_of(head)
    dims: tuple[int, int] | None = None
    if fmt == "JPEG":
        chars = _FIRST_LOOK
        while True:
            found = _jpeg_size(head)
            if found is not False or len(head) >= JPEG_SCAN_LIMIT or chars >= len(payload):
                dims = found if isinstance(found, tuple) else None
                break
            chars = min(chars * 8, JPEG_SCAN_LIMIT * 4 // 3 + 4)
            try:
                head = _decode_prefix(payload, chars)
            except (binascii.Error, UnicodeEncodeError, ValueError):
                break
    elif fmt is not None:
        dims = sniff_dimensions(head)[1]
    width, height = dims if dims is not None else (None, None)
    return ImageInfo(mime, size, fmt, width, height, None if fmt else "unknown format")


def image_placeholder(block: Any) -> Text:
    """One line for an image block: ``[image image/png · 8×8 px · 90 B]``."""
    data = block.get("data") if isinstance(block, dict) else getattr(block, "data", None)
    mime = block.get("mimeType") if isinstance(block, dict) else getattr(block, "mimeType", None)
    info = image_info(data, mime)
    line = Text("[image", style=IMAGE_STYLE, no_wrap=True, overflow="ellipsis", end="")
    if info.mime_type is not None:
        line.append(" ")
        line.append_text(safe_line(info.mime_type, max_chars=80, style=IMAGE_STYLE))
    if info.width is not None and info.height is not None:
        line.append(f" · {info.width}×{info.height} px", IMAGE_STYLE)
    if info.byte_size is not None:
        line.append(f" · {format_bytes(info.byte_size)}", IMAGE_STYLE)
    line.append("]", IMAGE_STYLE)
    if info.mismatch and info.format is not None:
        line.append(f" data is {info.format}", WARN_STYLE)
    elif info.problem is not None:
        line.append(f" {info.problem}", WARN_STYLE)
    return line
