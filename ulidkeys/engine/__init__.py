"""The execution engine, client-agnostic. The machines do no I/O: page chains
(:mod:`.chains`), time slices (:mod:`.slicing`), a plan's schedule and its merge
(:mod:`.scheduling`), the vocabulary of programs (:mod:`.operations`) and the programs written in
it - the newest-first search (:mod:`.search`), ``latest`` (:mod:`.newest`), period folders
(:mod:`.folders`) - and incremental consumers (:mod:`.consuming`). The shells only send and
wait: the asyncio shell (:mod:`.tasks`) and the thread shell generated from it (:mod:`.threads`),
over the pools of :mod:`.pools`.
"""
