"""What every MCP transport must show: the tools, a phantom-free answer, a refusal, sources."""

from __future__ import annotations

import re

ANSWERED = "How much did vitamin D change lumbar spine bone density in older adults?"
OFF_TOPIC = "Who won the 1998 Eurovision Song Contest?"
OUT_OF_SCOPE = "Which cryptocurrency should the lab invest its grant in?"


async def exercise(client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) >= {"ask", "inspect", "sources"}
    schema = tools["ask"].output_schema
    assert {"status", "decided_by", "answer", "passages", "refusal"} <= set(schema["properties"])

    done = await client.call_tool("ask", {"question": ANSWERED})
    assert not done.is_error, done.content
    result = done.structured_content
    assert result["status"] == "answered" and result["decided_by"] is None
    assert "1.8%" in result["answer"] and result["phantoms"] == []
    numbers = {p["n"] for p in result["passages"]}
    markers = {int(n) for n in re.findall(r"\[(\d+)\]", result["answer"])}
    assert markers and markers <= numbers and set(result["citations"]) == markers
    cited = [p for p in result["passages"] if p["n"] in markers]
    assert all(p["title"] and "page" in p for p in cited)

    refused = (await client.call_tool("ask", {"question": OFF_TOPIC})).structured_content
    assert refused["status"] == "refused" and refused["decided_by"] == "retrieval_gate"
    assert refused["refusal"]["reason"] == "weak_retrieval" and refused["answer"] is None
    assert refused["citations"] == []
    scoped = (await client.call_tool("ask", {"question": OUT_OF_SCOPE})).structured_content
    assert scoped["decided_by"] == "scope_guard"

    follow = await client.call_tool(
        "ask", {"question": "And in the placebo group?", "history": [ANSWERED]}
    )
    followed = follow.structured_content
    assert followed["question"] == "And in the placebo group?"
    assert "placebo" in followed["asked_as"] and "vitamin D" in followed["asked_as"]

    looked = (await client.call_tool("inspect", {"question": ANSWERED, "k": 3})).structured_content
    assert looked["status"] == "retrieved" and len(looked["passages"]) == 3
    assert looked["band"] in ("strong", "borderline", "weak")

    listed = (await client.call_tool("sources", {})).structured_content
    assert len(listed["documents"]) == 5 and listed["passages"] > 0
    assert all(d["passages"] > 0 for d in listed["documents"])

    bad = await client.call_tool("ask", {"question": "   "})
    assert bad.is_error and "empty" in bad.content[0].text
