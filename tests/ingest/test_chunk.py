from lastword.ingest.chunk import split_passages
from lastword.ingest.document import PageText


def words(n: int, stem: str = "word") -> str:
    return " ".join(f"{stem}{i}" for i in range(n))


def test_short_paragraphs_are_packed_up_to_the_target():
    text = "\n\n".join(words(60, f"p{i}x") for i in range(6))  # 360 words in 6 paragraphs
    passages = split_passages(
        (PageText(None, text),), min_words=100, target_words=200, max_words=300
    )
    counts = [len(p.text.split()) for p in passages]
    assert sum(counts) == 360
    assert all(100 <= c <= 300 for c in counts), counts
    assert [p.position for p in passages] == list(range(len(passages)))


def test_passages_never_cross_a_page_and_keep_page_numbers():
    pages = (
        PageText(1, words(150, "a")),
        PageText(2, words(40, "b")),
        PageText(3, words(150, "c")),
    )
    passages = split_passages(pages)
    assert [p.page for p in passages] == [1, 2, 3]
    assert passages[1].text.startswith("b0") and "a" not in passages[1].text.split()[0]


def test_long_paragraph_is_cut_at_sentence_ends_within_max_words():
    sentences = [f"Sentence {i} has " + words(20, f"s{i}w") + "." for i in range(40)]
    text = " ".join(sentences)  # about 920 words, one paragraph
    passages = split_passages((PageText(None, text),), max_words=300)
    counts = [len(p.text.split()) for p in passages]
    assert max(counts) <= 300 and len(passages) >= 4
    assert all(p.text.endswith(".") for p in passages[:-1])  # cut at sentence ends


def test_a_sentence_longer_than_max_words_is_cut_at_words():
    passages = split_passages((PageText(None, words(700)),), max_words=300)
    assert [len(p.text.split()) for p in passages] == [300, 300, 100]


def test_jsonl_paragraphs_are_natural_boundaries():
    text = "First short paragraph here.\n\nSecond one, also short.\n\nThird."
    passages = split_passages((PageText(None, text),), paragraphs_are_passages=True)
    assert [p.text for p in passages] == [
        "First short paragraph here.",
        "Second one, also short.",
        "Third.",
    ]


def test_offsets_point_into_the_page_text():
    text = "  Intro line one\nline two.\n\n\nSecond   paragraph\twith  spaces.  "
    passages = split_passages((PageText(4, text),), paragraphs_are_passages=True)
    for p in passages:
        original = text[p.char_start : p.char_end]
        assert " ".join(original.split()) == p.text
    assert passages[0].text == "Intro line one line two."


def test_blank_page_gives_no_passage():
    assert split_passages((PageText(1, "   \n\n  "),)) == []
