"""The bundled opening suites (SPEC.md section 19): one ``.sps`` file per two-seat god pairing (and
the base game), ``3p.sps`` and ``4p.sps``; read through ``santorini_server.openings.suites``."""
