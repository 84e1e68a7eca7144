from pitui.core.units import format_bytes


def test_format_bytes() -> None:
    assert format_bytes(None) == "? bytes"
    assert format_bytes(0) == "0 B"
    assert format_bytes(1023) == "1023 B"
    assert format_bytes(1024) == "1.0 KiB"
    assert format_bytes(1536) == "1.5 KiB"
    assert format_bytes(5 * 2**20) == "5.0 MiB"
    assert format_bytes(3 * 2**30) == "3.0 GiB"
    assert format_bytes(5 * 2**40) == "5120.0 GiB"
