"""Scrubbing the API key out of what the model writes, whole and in streamed pieces."""

from __future__ import annotations

import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from conftest import TEST_API_KEY
from core.llm import StreamRedactor, redact


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", TEST_API_KEY)


def stream(pieces: list[str]) -> list[str]:
    redactor = StreamRedactor()
    return [*(redactor.feed(p) for p in pieces), redactor.flush()]


def test_the_configured_key_and_key_shaped_words_are_replaced():
    assert redact(f"key={TEST_API_KEY}; other sk-proj-abcdef123 ok") == "key=[redacted]; other [redacted] ok"
    assert redact("ask-me sk-12 skim") == "ask-me sk-12 skim"  # too short, or not a word start


def test_a_key_split_across_pieces_never_shows_in_any_piece():
    out = stream(["Your key: ", TEST_API_KEY[:3], TEST_API_KEY[3:10], TEST_API_KEY[10:], " done."])
    assert "".join(out) == "Your key: [redacted] done."
    for piece in out:
        assert TEST_API_KEY[:5] not in piece


def test_text_that_cannot_start_a_key_goes_out_at_once():
    assert stream(["Two ", "sites ", "in ", "Berlin."]) == ["Two ", "sites ", "in ", "Berlin.", ""]


def test_a_configured_key_of_any_shape_is_held_while_it_may_be_forming(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "local secret 42")
    out = stream(["a local sec", "ret 42 b"])
    assert out[0] == "a " and "".join(out) == "a [redacted] b"


_ALPHABET = st.sampled_from(["sk-", "s", "k", "-", " ", ".", "a", "9", "_", "é", "\n",
                             TEST_API_KEY, TEST_API_KEY[:7], TEST_API_KEY[7:], "sk-proj-"])


@hypothesis_settings(max_examples=300, deadline=None)
@given(parts=st.lists(_ALPHABET, max_size=12), cuts=st.lists(st.integers(0, 200), max_size=6))
def test_streamed_pieces_join_to_the_text_redacted_whole(parts, cuts):
    text = "".join(parts)
    bounds = sorted({c % (len(text) + 1) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *bounds], [*bounds, len(text)])]
    out = stream(pieces)
    assert "".join(out) == redact(text)
    assert all(TEST_API_KEY not in piece for piece in out)
