"""Build the CACM held-out collection (documents.json, queries.json, qrels.json) in the project's layout.

Inputs (see PROVENANCE.md for where each comes from and its checksum):
  --jar      io.anserini:anserini:0.13.3 jar from Maven Central (holds topics.cacm.txt and qrels.cacm.txt)
  --docs     cacm.tar.gz from castorini/anserini, src/main/resources/cacm/
             (3,204 HTML files, one per document)
  --out      output folder

  python3 make_cacm.py --jar ~/.m2/repository/io/anserini/anserini/0.13.3/anserini-0.13.3.jar \
      --docs cacm.tar.gz --out .

Standard library only. Deterministic: same inputs, byte-identical outputs.
"""

from __future__ import annotations

import argparse
import json
import re
import tarfile
import zipfile
from pathlib import Path

TOPICS = "topics-and-qrels/topics.cacm.txt"
QRELS = "topics-and-qrels/qrels.cacm.txt"

# The publication line: "CACM December, 1958", " CACM February, 1979", "CACM November,1960",
# "CACM JUly, 1968" or (twice) just "June, 1969".
DATE = re.compile(r"^(?:CACM\s+)?[A-Za-z]+\.?,?\s*\d{4}$")
# The SMART entry line that follows the metadata: "CA581203 JB March 22, 1978  8:28 PM" (once "CA660208JB").
ENTRY = re.compile(r"^CA\d{6}")
# CR classification codes ("4.22 4.34 4.45 6.21", sometimes comma-separated) and stray citation rows.
CODES = re.compile(r"^[\d.,\s]+$")
# A keyword line has an item starting in lower case ("Hashing, hashing methods, ..."); an author line
# ("Perlis, A. J.", "Langdon, Glen G.", "ACM Special Interest Committee") has none.
KEYWORDISH = re.compile(r"(?:^|,\s*)[a-z]")
# A strict author line, for the rare record that puts its authors before the publication line.
NAME = re.compile(r"^[A-Z][\w'\-]+(?: [A-Z][\w'\-]+)*(?: (?:Jr|Sr|III|II)\.?)?,\s*(?:[A-Z][a-z]*\.?\s*)+$")


def is_author(line: str) -> bool:
    """Not a keyword line and not prose (prose has several lower-case words)."""
    return not KEYWORDISH.search(line) and sum(w[:1].islower() for w in line.split()) < 3


def blocks(text: str) -> list[list[str]]:
    """Paragraphs: runs of non-blank lines, each line stripped."""
    out: list[list[str]] = []
    current: list[str] = []
    for line in text.splitlines():
        if line.strip():
            current.append(line.strip())
        elif current:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def join(lines: list[str]) -> str:
    return re.sub(r"\s+", " ", " ".join(lines)).strip()


def doc_id(member: str) -> str:
    """ "CACM-0115.html" -> "CACM-115": the qrels name documents without zero padding (the SMART numbers)."""
    prefix, number = Path(member).stem.split("-")
    return f"{prefix}-{int(number)}"


def parse_document(name: str, html: str) -> dict[str, str]:
    """One CACM record: title, abstract (may be absent), publication line, then the SMART metadata in
    order: authors (.A), keywords (.K), CR categories (.C), entry (.N), citations (.X).

    body = abstract, then the keywords; author = the authors joined by "; ". The publication line, the
    CR codes, the entry line and the citation rows are bibliographic data and are left out."""
    pre = html.split("<pre>", 1)[1].split("</pre>", 1)[0]
    parts = blocks(pre)
    date_at = next((i for i, b in enumerate(parts) if i > 0 and len(b) == 1 and DATE.match(b[0])), None)
    if date_at is None:
        raise ValueError(f"{name}: no publication line")
    head = parts[1:date_at]
    authors: list[str] = []
    if head and all(NAME.match(line) for line in head[-1]):  # authors before the date (CACM-196)
        authors, head = list(head[-1]), head[:-1]
    first = join(parts[0])
    if date_at == 1 and first.endswith(".") and len(first.split()) > 25:  # no title, only an abstract
        title, abstract = "", first  # (CACM-3193)
    else:
        title, abstract = first, " ".join(join(b) for b in head)
    entry_at = next((i for i, b in enumerate(parts) if i > date_at and ENTRY.match(b[0])), len(parts))
    keywords: list[str] = []
    for i, b in enumerate(parts[date_at + 1 : entry_at]):
        for line in b:
            if ENTRY.match(line) or CODES.match(line):
                continue
            if i == 0 and not keywords and is_author(line):
                authors.append(line)
            else:
                keywords.append(line)
    body = abstract
    if keywords:  # the author-supplied keywords (SMART .K field) are part of the record's text
        body = f"{body}\n{join(keywords)}".strip()
    return {"id": name, "title": title, "author": "; ".join(authors), "body": body}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jar", type=Path, required=True)
    ap.add_argument("--docs", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=Path("."))
    args = ap.parse_args()

    with tarfile.open(args.docs) as tar:
        members = sorted(
            (m for m in tar.getmembers() if m.isfile() and m.name.endswith(".html")), key=lambda m: m.name
        )
        documents = [
            parse_document(doc_id(m.name), tar.extractfile(m).read().decode("utf-8")) for m in members
        ]
    with zipfile.ZipFile(args.jar) as jar:
        topics = jar.read(TOPICS).decode("utf-8")
        qrel_lines = jar.read(QRELS).decode("utf-8").splitlines()

    judgments = []
    for line in qrel_lines:
        if line.strip():
            qid, _, docno, grade = line.split()
            judgments.append({"queryId": qid, "docId": docno, "relevance": int(grade)})
    judged = {j["queryId"] for j in judgments}

    queries = []
    for qid, text in re.findall(r"<DOC>\s*<DOCNO>\s*(\d+)\s*</DOCNO>(.*?)</DOC>", topics, re.S):
        if qid in judged:  # 12 of the 64 topics have no judgments at all: nothing to score them against
            queries.append({"id": qid, "text": re.sub(r"\s+", " ", text).strip()})

    ids = {d["id"] for d in documents}
    missing = {j["docId"] for j in judgments} - ids
    if missing:
        raise SystemExit(f"qrels name documents that are not in the corpus: {sorted(missing)[:5]}")
    if {q["id"] for q in queries} != judged:
        raise SystemExit("a judged query is missing from the topics")

    args.out.mkdir(parents=True, exist_ok=True)
    for name, data in (("documents.json", documents), ("queries.json", queries), ("qrels.json", judgments)):
        # Same layout as data/cranfield/*.json: indent=0, no trailing newline.
        (args.out / name).write_text(json.dumps(data, indent=0, ensure_ascii=False), encoding="utf-8")
    print(f"{len(documents)} documents, {len(queries)} queries, {len(judgments)} judgments -> {args.out}")


if __name__ == "__main__":
    main()
