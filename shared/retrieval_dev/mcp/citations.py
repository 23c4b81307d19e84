"""A retrieve answer as the text a model reads: one citable entry per hit (its session name or rank, id,
kind, score, section, the link that opens it, text), not the JSON body, which goes along whole as
structured content."""

from __future__ import annotations

from typing import Any

HIT_TEXT_CHARS = 400
"""The most of a hit's text the list shows; the structured content has all of it."""


def hit_list(body: dict[str, Any], asked: dict[str, Any] | None = None) -> str:
    """``asked``: the request the tool sent, so a limit the API clamped is said, not silently applied."""
    hits = [hit for hit in body.get("hits") or [] if isinstance(hit, dict)]
    names = ((body.get("receipt") or {}).get("source_ids")) or []
    applied = body.get("applied") or {}
    order = "interleaved by kind (applied.diversify)" if applied.get("diversify") else "by score"
    more = "; more with next_token" if body.get("next_token") else ""
    lines = [f"{len(hits)} hits, {order}{more}.", *_clamped(asked or {}, applied)]
    for position, hit in enumerate(hits):
        name = names[position] if position < len(names) else str(position + 1)
        where = _where(hit.get("location") or {})
        text = " ".join(str(hit.get("text") or "").split())
        if len(text) > HIT_TEXT_CHARS:
            text = text[: HIT_TEXT_CHARS - 1] + "…"
        score = hit.get("score")
        scored = f", score {score:.3g}" if isinstance(score, int | float) else ""
        lines.append(f"[{name}] {hit.get('id')} ({hit.get('kind')}{scored}){where}: {text}")
    return "\n".join(lines)


def _where(location: dict[str, Any]) -> str:
    """`` section "19.5. Shutting Down" <https://host/page.html#ID>``: the hit's section and the link that
    opens it (its ``url``, else its URI); "" for a hit that names no place."""
    link = location.get("url") or location.get("uri")
    section = " ".join(str(location.get("section") or "").split())
    return (f' section "{section}"' if section else "") + (f" <{link}>" if link else "")


def _clamped(asked: dict[str, Any], applied: dict[str, Any]) -> list[str]:
    """``top_k 1000 was capped at 100 ...`` for each limit the API used other than asked."""
    notes = []
    for name, why in (
        ("top_k", "a page holds 1..100 hits; page on with next_token"),
        ("depth", "its range"),
    ):
        wanted, used = asked.get(name), applied.get(name)
        if isinstance(wanted, int) and isinstance(used, int) and wanted != used:
            verb = "capped at" if wanted > used else "raised to"
            notes.append(f"Note: {name} {wanted} was {verb} {used} ({why}).")
    return notes
