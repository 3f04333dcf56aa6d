"""The execution engine, client-agnostic: page chains (:mod:`.chains`), time slicing
(:mod:`.slicing`), scheduling and merging (:mod:`.scheduling`), the newest-first search
(:mod:`.search`), the program vocabulary (:mod:`.programs`); the thread shell
(:mod:`.execution`), connection pools (:mod:`.pools`), step programs for writes (:mod:`.steps`),
``latest`` (:mod:`.newest`), period folders (:mod:`.folders`) and incremental consumers
(:mod:`.consuming`). The machines do no I/O; the thread and asyncio shells only wait.
"""
