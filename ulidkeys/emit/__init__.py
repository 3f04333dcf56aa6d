"""What the library writes for other programs to read: Athena's SQL and partition projection
(:mod:`.athena`), the ``aws`` CLI commands of a plan (:mod:`.awscli`) and S3 Batch Operations
manifests (:mod:`.manifests`). Pure text work beside the layouts and plans it describes, each
form tested against the program that reads it.
"""
