"""Never answers anything (not even ``sei``) but keeps reading until EOF."""

import sys

for _line in sys.stdin:
    pass
