"""What the library writes for other programs to read: Athena's SQL and partition projection
(:mod:`.athena`), the ``aws`` CLI commands of a plan (:mod:`.awscli`) and S3 Batch Operations
manifests (:mod:`.manifests`). Pure text work beside the layouts and plans it describes, each
form tested against the program that reads it. What it offers:

- Athena / Glue: :func:`partition_projection` (a layout's partition columns and table
  properties, a :class:`Projection` whose ``ddl()`` is the ``CREATE EXTERNAL TABLE``) and
  :func:`window_predicate` (the ``WHERE`` that reads only the folders a window touches);
- S3 Batch Operations manifests: :func:`manifest_line` (one ``bucket,key`` line),
  :func:`write_manifest` (to a text file), :func:`put_manifest` (to S3, with the
  ``Manifest=`` of ``s3control.create_job``) and :func:`parse_manifest` (read one back).
"""

from ulidkeys.emit.athena import Projection, partition_projection, window_predicate
from ulidkeys.emit.manifests import manifest_line, parse_manifest, put_manifest, write_manifest

__all__ = [
    "Projection",
    "manifest_line",
    "parse_manifest",
    "partition_projection",
    "put_manifest",
    "window_predicate",
    "write_manifest",
]
