"""What a bucket's prefix or a table's partition holds, read in a bounded number of calls: the
shape of its keys, the layout (entity) that fits them, their oldest and newest times, how many
there are and when, and what a window would cost with that layout next to a full listing.

Every figure is exact, a range that holds the truth at its stated confidence, or unknown (see
:class:`~ulidkeys.survey.counts.Count`). One module per service (:mod:`ulidkeys.survey.s3`,
:mod:`ulidkeys.survey.dynamodb`), what they share in :mod:`ulidkeys.survey.common`, the listing
hints in :mod:`ulidkeys.survey.hints`.

This package exports nothing: users call the adapters' ``survey`` (``ulidkeys.s3.survey``,
``ulidkeys.dynamodb.survey``), whose answers are ``ulidkeys.s3.Survey`` and
``ulidkeys.dynamodb.PartitionSurvey``.
"""

__all__: list[str] = []
