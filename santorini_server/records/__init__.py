"""Game records: the :class:`GameRecord` value, SGN text, the msgpack archive, durable writers.

One concept per module: ``game`` (the value), ``sgn`` (the text format), ``frames`` (the archive's
checksummed frames), ``payload`` (a record inside a frame, schema-checked), ``archive`` (reading
whole archives), ``durable`` (fsync'd appends, atomic replacement), ``archive_writer``,
``sgn_writer`` and ``results_jsonl`` (the tournament's three files), ``convert`` (either format
in, either out).

Pure parse/format (no trio, no rules engine): turns and positions are opaque strings here and
are re-validated by the rules engine at replay. See SPEC.md section 13.
"""

from .archive import (
    encode_frame,
    iter_archive,
    iter_archive_frames,
    map_file,
    read_archive,
    read_frame,
    read_record_at,
    scan_archive,
)
from .archive_writer import ArchiveWriter
from .convert import (
    FORMATS,
    Conversion,
    Format,
    archive_to_sgn,
    convert_records,
    detect_file_format,
    detect_format,
    format_of_name,
    iter_file_lines,
    iter_records,
    record_bytes,
    sgn_lines,
    sgn_to_archive,
)
from .durable import DurableAppender, atomic_file, fsync_dir
from .frames import (
    HEADER_SIZE,
    MAGIC,
    MAX_PAYLOAD,
    ArchiveError,
    CorruptFrame,
    Frame,
    frame_payload,
    iter_frames,
    iter_stream_frames,
)
from .game import (
    ELIMINATION_TERMINATIONS,
    MAX_COUNT,
    MAX_LABEL,
    REQUIRED_TAGS,
    RESULTS,
    TAG_ORDER,
    Elimination,
    GameRecord,
    RecordError,
    SeatCycle,
    Slot,
    TurnRecord,
    check_label,
    check_placings,
    check_tag,
    check_text,
    clean_text,
    placings_result,
    result_placings,
    start_side_and_turn,
    start_state,
)
from .payload import SCHEMA_VERSION, decode_record, encode_record
from .results_jsonl import ResultsWriter, result_summary
from .sgn import (
    ELIMINATED,
    IMPORT_DEFAULTS,
    MAX_LINE,
    SgnError,
    format_comment,
    format_elimination,
    format_sgn,
    format_sgn_games,
    iter_sgn,
    parse_sgn,
)
from .sgn_writer import DeferredSgnWriter, SgnWriter

__all__ = [
    # game
    "GameRecord", "TurnRecord", "Elimination", "Slot", "SeatCycle", "RecordError", "RESULTS", "REQUIRED_TAGS",
    "TAG_ORDER", "MAX_COUNT", "ELIMINATION_TERMINATIONS", "check_tag", "check_text", "check_label", "MAX_LABEL",
    "clean_text", "start_side_and_turn",
    "start_state", "placings_result", "result_placings", "check_placings",
    # sgn
    "SgnError", "MAX_LINE", "IMPORT_DEFAULTS", "ELIMINATED", "format_comment", "format_elimination",
    "format_sgn", "format_sgn_games", "parse_sgn",
    "iter_sgn",
    # frames
    "ArchiveError", "CorruptFrame", "Frame", "MAGIC", "HEADER_SIZE", "MAX_PAYLOAD", "frame_payload",
    "iter_frames", "iter_stream_frames",
    # payload
    "SCHEMA_VERSION", "encode_record", "decode_record",
    # archive
    "encode_frame", "read_frame", "scan_archive", "map_file", "iter_archive", "iter_archive_frames", "read_archive",
    "read_record_at",
    # durable files and the writers
    "DurableAppender", "atomic_file", "fsync_dir", "ArchiveWriter", "SgnWriter", "DeferredSgnWriter",
    "ResultsWriter",
    "result_summary",
    # convert
    "Format", "FORMATS", "detect_format", "detect_file_format", "format_of_name", "sgn_lines", "iter_file_lines",
    "iter_records", "record_bytes",
    "Conversion", "convert_records", "sgn_to_archive", "archive_to_sgn",
]
