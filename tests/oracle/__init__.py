"""Independent brute-force Santorini rules, used only as a test oracle (see reference.py)."""
