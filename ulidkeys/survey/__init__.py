"""What a bucket's prefix or a table's partition holds, read in a bounded number of calls: the
shape of its keys, the layout (entity) that fits them, their oldest and newest times, how many
there are and when, and what a window would cost with that layout next to a full listing.

Every figure is exact, a range that holds the truth at its stated confidence, or unknown (see
:class:`~ulidkeys.survey.counts.Count`). One module per service (:mod:`ulidkeys.survey.s3`,
:mod:`ulidkeys.survey.dynamodb`), what they share in :mod:`ulidkeys.survey.common`, the listing
hints in :mod:`ulidkeys.survey.hints`.
"""

from ulidkeys.survey.common import DEFAULT_MAX_CALLS, MIN_CALLS
from ulidkeys.survey.dynamodb import PartitionSurvey, partition_survey_program
from ulidkeys.survey.s3 import Survey, survey_program

__all__ = [
    "DEFAULT_MAX_CALLS",
    "MIN_CALLS",
    "PartitionSurvey",
    "Survey",
    "partition_survey_program",
    "survey_program",
]
