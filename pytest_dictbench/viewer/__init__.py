"""``dictbench view``: the results store in a browser, on 127.0.0.1.

:mod:`.pages` renders the pages from what the store gives (runs, trends, a run's report
and items); :mod:`.server` serves them with the local servers' safety
(:mod:`pytest_dictbench.localserver`) and a session token.
"""
