"""The engine's players module (unused by the adapter)."""
