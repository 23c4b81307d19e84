"""Ingestion from object storage: a JSON Lines object (gzip too) under ``contexts/<context_id>/``
becomes loads and deletes in that context, applied idempotently, with a report beside it.

``objects`` names keys and their context, ``reading`` plans an object into parts of whole lines and
reads them back, ``report`` is what each part and the whole object produced, ``service`` is the use
case. It knows S3 and SQS only through the ports in ``ports``; docs/INGEST.md has the design.
"""
