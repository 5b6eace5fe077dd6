"""The daemon's web dashboard (SPEC.md section 17)."""
