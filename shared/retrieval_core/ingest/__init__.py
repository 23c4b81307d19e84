"""Ingestion from object storage: a JSON Lines object (gzip too) under ``contexts/<context_id>/``
becomes loads and deletes in that context, applied idempotently, with a report beside it.

``objects`` names keys and their context, ``reading`` plans an object into parts of whole lines and
reads them back, ``report`` is what each part and the whole object produced, ``service`` is the use
case. It knows S3, SQS and the loader only through the ports in ``ports``; the object and part types
it hands them are in ``models.ingest``. docs/INGEST.md has the design.
"""
