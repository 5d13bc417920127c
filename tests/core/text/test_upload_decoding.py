"""decode_upload: UTF-16/32 with a byte-order mark are read; UTF-16 without one is named."""
import pytest

from rnnviz.errors import InputError
from rnnviz.text.tokenize import decode_upload

TEXT = "我喜欢猫 I like cats\nsecond line"


@pytest.mark.parametrize("codec", ["utf-8", "utf-8-sig", "utf-16", "utf-32"])
def test_text_with_or_without_a_bom_comes_back(codec):
    assert decode_upload(TEXT.encode(codec)) == TEXT


@pytest.mark.parametrize("bom, codec", [(b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")])
def test_both_utf16_byte_orders_are_read(bom, codec):
    assert decode_upload(bom + TEXT.encode(codec)) == TEXT


def test_utf16_without_a_bom_is_named_and_binary_stays_binary():
    with pytest.raises(InputError, match="UTF-16 text without a byte-order mark"):
        decode_upload("I like cats and dogs".encode("utf-16-le"))
    with pytest.raises(InputError, match="binary file"):
        decode_upload(bytes(range(256)) * 4)
    with pytest.raises(InputError, match="not valid UTF-16"):
        decode_upload(b"\xff\xfe" + b"\x00\xd8")  # a lone surrogate
