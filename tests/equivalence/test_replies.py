"""Reply comparison: truthfulness, completeness, paraphrases, grounding of reply facts."""

from __future__ import annotations

from monitor.equivalence import ReplyComparator, ReplyMatch


def test_changed_metric_and_amount_is_not_truthful(replies):
    m = replies.compare("The revenue was 1.2 million euros.", "The profit was 0.3 million euros.")
    assert not m.truthful
    assert "profit" in m.mismatched
    assert any("0.3" in x for x in m.mismatched)
    assert m.score < 0.5


def test_changed_metric_name_alone_is_not_truthful(replies):
    m = replies.compare("The revenue was 1.2 million euros.", "The profit was 1.2 million euros.")
    assert not m.truthful
    assert m.mismatched == ("profit",)


def test_changed_entity_is_not_truthful(replies):
    m = replies.compare("Revenue in the EU was $5M.", "Revenue in the US was $5M.")
    assert not m.truthful
    assert "US" in m.mismatched


def test_changed_date_and_time(replies):
    gold = "Your flight UA-100 departs on June 20, 2024 at 3 pm."
    assert not replies.compare(gold, "Your flight UA-100 departs on June 21, 2024 at 3 pm.").truthful
    assert not replies.compare(gold, "Your flight UA-100 departs on June 20, 2024 at 6 pm.").truthful
    assert not replies.compare(gold, "Your flight UA-200 departs on June 20, 2024 at 3 pm.").truthful


def test_same_facts_in_other_spellings_pass(replies):
    m = replies.compare(
        "Your flight UA-100 departs on June 20, 2024 at 3 pm.",
        "Your flight UA-100 leaves on 2024-06-20 at 15:00.",
    )
    assert m.truthful and m.complete, m
    assert m.score >= 0.5


def test_paraphrase_passes(replies):
    m = replies.compare("Which region should the report cover?", "Sure, which region would you like the report for?")
    assert m == ReplyMatch(True, True, m.score, (), (), m.method)
    assert m.score >= 0.5


def test_left_out_facts_make_it_incomplete(replies):
    m = replies.compare("Your flight UA-100 departs on June 20, 2024 at 3 pm.", "Your flight departs at 3 pm.")
    assert m.truthful
    assert not m.complete
    assert "UA-100" in m.missing and "June 20, 2024" in m.missing
    assert m.score < 0.5


def test_left_out_content_makes_it_incomplete(replies):
    m = replies.compare(
        "I booked the hotel, reserved a table for dinner and rented a car for the weekend.",
        "I booked the hotel.",
    )
    assert not m.complete
    assert m.missing


def test_unrelated_reply_fails_both(replies):
    m = replies.compare("The invoice was sent to your email.", "A man is playing the guitar on stage.")
    assert not m.truthful and not m.complete
    assert m.score < 0.2


def test_exact_reply(replies):
    assert replies.compare("Done.", " done ") == ReplyMatch(True, True, 1.0, (), (), "exact")


def test_typed_only_reply_comparator():
    rc = ReplyComparator(semantic=None)
    ok = rc.compare("The total is $108.", "The total is 108 dollars.")
    assert ok.truthful and ok.complete
    bad = rc.compare("The total is $108.", "The total is $180.")
    assert not bad.truthful and "$180" in bad.mismatched


def test_prefetch_encodes_every_text_compare_needs_in_one_go(scorer):
    from monitor.equivalence import EmbeddingScorer

    fresh = EmbeddingScorer()
    fresh._model = scorer.encoder
    rc = ReplyComparator(semantic=fresh)
    pairs = [("The report is ready.", "Your report is ready now."), ("Same.", "Same."), ("A b c.", "A b d.")]
    rc.prefetch(pairs)
    # the replies and their clauses; the exact pair needs no model
    assert "Your report is ready now." in fresh._cache and "A b d" in fresh._cache
    assert not any(t.startswith("Same") for t in fresh._cache)
    before = fresh.encoded_texts
    for g, p in pairs:
        rc.compare(g, p)
    assert fresh.encoded_texts == before


def test_unsupported_facts(replies):
    sources = ["I want to fly to NYC on 2024-08-01", {"flights": [{"id": "UA-100", "price": 300}]}]
    reply = "I booked UA-999 to New York City on August 1st, 2024 for $300."
    assert replies.unsupported_facts(reply, sources) == ("UA-999",)


def test_unsupported_facts_catch_invented_numbers_and_entities(replies):
    sources = ["What was revenue in the EU?", {"metric": "revenue", "region": "EU", "value": 1200000}]
    assert replies.unsupported_facts("EU revenue was 1.2 million.", sources) == ()
    out = replies.unsupported_facts("EU revenue was 1.5 million, up from Berlin.", sources)
    assert "1.5 million" in out and "Berlin" in out


def test_a_predicate_before_a_clause_break_is_not_a_label(replies):
    """'ready' / 'done' are not the label of 450: after the colon or dash, 'total' is."""
    gold = "Alice Martin, your revenue report for Paris is ready: the total was 450 thousand euros in Q3."
    pred = "Hi Alice Martin! The Q3 Paris revenue report is done — total: 450 thousand euros."
    match = replies.compare(gold, pred)
    assert match.truthful and match.complete, match
    changed = replies.compare(gold, pred.replace("450", "540"))
    assert not changed.truthful and "540 thousand euros" in " ".join(changed.mismatched)


def test_a_swapped_metric_name_anywhere_in_a_reply_is_not_truthful(replies):
    gold = "Alice Martin, your revenue report for Paris is ready: the total was 450 thousand euros in Q3."
    pred = "Hi Alice Martin! The Q3 Paris profit report is done — total: 450 thousand euros."
    match = replies.compare(gold, pred)
    assert not match.truthful and "profit" in match.mismatched
    same_metric = replies.compare(gold, pred.replace("profit", "revenue"))
    assert same_metric.truthful
