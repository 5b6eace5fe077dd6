"""Game records: the :class:`GameRecord` value, SGN text, the msgpack archive, durable writers.

Pure parse/format (no trio, no rules engine): turns and positions are opaque strings here and
are re-validated by the rules engine at replay. See SPEC.md, "Game records".
"""

from .archive import (
    HEADER_SIZE as HEADER_SIZE,
    MAGIC as MAGIC,
    MAX_PAYLOAD as MAX_PAYLOAD,
    SCHEMA_VERSION as SCHEMA_VERSION,
    ArchiveError as ArchiveError,
    ArchiveWriter as ArchiveWriter,
    CorruptFrame as CorruptFrame,
    Frame as Frame,
    ResultsWriter as ResultsWriter,
    SgnWriter as SgnWriter,
    decode_record as decode_record,
    encode_frame as encode_frame,
    encode_record as encode_record,
    iter_archive as iter_archive,
    iter_frames as iter_frames,
    read_archive as read_archive,
    result_summary as result_summary,
    scan_archive as scan_archive,
)
from .convert import archive_to_sgn as archive_to_sgn, sgn_to_archive as sgn_to_archive
from .game import (
    MAX_COUNT as MAX_COUNT,
    REQUIRED_TAGS as REQUIRED_TAGS,
    RESULTS as RESULTS,
    TAG_ORDER as TAG_ORDER,
    GameRecord as GameRecord,
    RecordError as RecordError,
    TurnRecord as TurnRecord,
    check_tag as check_tag,
    check_text as check_text,
    clean_text as clean_text,
    start_side_and_turn as start_side_and_turn,
)
from .sgn import (
    MAX_LINE as MAX_LINE,
    SgnError as SgnError,
    format_sgn as format_sgn,
    format_sgn_games as format_sgn_games,
    iter_sgn as iter_sgn,
    parse_sgn as parse_sgn,
)

__all__ = [
    # game
    "GameRecord", "TurnRecord", "RecordError", "RESULTS", "REQUIRED_TAGS",
    "TAG_ORDER", "MAX_COUNT", "check_tag", "check_text", "clean_text", "start_side_and_turn",
    # sgn
    "SgnError", "MAX_LINE", "format_sgn", "format_sgn_games", "parse_sgn", "iter_sgn",
    # archive
    "ArchiveError", "CorruptFrame", "Frame", "MAGIC", "HEADER_SIZE", "MAX_PAYLOAD",
    "SCHEMA_VERSION", "encode_record", "decode_record", "encode_frame", "iter_frames",
    "scan_archive", "iter_archive", "read_archive", "result_summary",
    "ArchiveWriter", "ResultsWriter", "SgnWriter",
    # convert
    "sgn_to_archive", "archive_to_sgn",
]
