"""Opening suites (SPEC.md section 19): ``generate`` makes them from the bundled alpha-beta engine's
play, ``suites`` reads them and finds the bundled ones.  Nothing is imported here, so a tournament
that reads a suite does not load the engine.
"""
