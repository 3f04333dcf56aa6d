"""Planning: pure descriptions of keys (S3 layouts, DynamoDB entities) and the plans that
turn a time window into the exact requests - plain data, no I/O, no boto3.
"""
