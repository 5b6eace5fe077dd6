"""Executors for tournaments beyond this process (``--backend dask``).

Nothing here is imported by the core: ``santorini tournament`` loads a backend module only when
it is asked for, so the referee keeps running with trio alone (Dask is the optional extra
``santorini-server[dask]``).
"""
