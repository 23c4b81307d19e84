"""Documents in: a file under ``contexts/<context_id>/`` of the ingest bucket (.txt .md .html .pdf .docx
.csv, Bedrock Knowledge Bases' formats) becomes chunks, items of kind ``document`` that cite their file,
page, section and character span (docs/DOCUMENTS.md).

``formats`` says which keys are documents and which are sidecars, ``parsers`` turn bytes into blocks of
text with their page and heading path (bounded by ``limits``), ``sidecar`` reads Bedrock's
``<file>.metadata.json``, ``chunking`` cuts blocks into chunks, ``chunk_items`` makes them loadable lines,
``entities`` finds their mentions, ``status`` is the per-file record and ``service`` is the use case.
The parser libraries (pypdf) are the ingest function's own dependencies, imported only when a file of
their format arrives; they are never in the shared layer.
"""
