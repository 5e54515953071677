"""A maple process polling a pull request's comments through the shared folder, for tests.

``python -m tests.github.poll_worker BASE_URL CA_FILE FOLDER MAX_AGE`` GETs the pull request's
issue comments every ``MAX_AGE / 4`` seconds until killed, printing one line per change it sees
(the number of comments, and when), flushed at once. With ``--hold SECONDS`` it takes the lock
of that answer and sleeps inside it instead (a poller killed while refreshing).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from contract_tests.github_peers import TOKEN
from maple_adapters.github.budget_recorder import BudgetRecorder
from maple_adapters.github.shared import SharedCache
from maple_adapters.github.shared_transport import SharedTransport, answer_key
from maple_adapters.github.transport import PyGithubTransport
from maple_adapters.github.wrappers import ResilientTransport

PATH = "/repos/acme/web/issues/1/comments"
PARAMS = {"per_page": 100, "page": 1}


def main() -> None:
    base_url, ca_file, folder, max_age = sys.argv[1:5]
    cache = SharedCache(Path(folder))
    if "--hold" in sys.argv:
        with cache.locked(f"a-{answer_key(PATH, PARAMS)}"):
            print("holding", flush=True)
            time.sleep(float(sys.argv[sys.argv.index("--hold") + 1]))
        return
    inner = BudgetRecorder(PyGithubTransport(TOKEN, base_url=base_url, verify=ca_file), cache)
    transport = SharedTransport(ResilientTransport(inner, secrets=[TOKEN]), cache, float(max_age))
    seen = -1
    while True:
        count = len(transport.request("GET", PATH, params=PARAMS).data or [])  # type: ignore[arg-type]
        if count != seen:
            seen = count
            print(f"{count} {time.time()}", flush=True)
        time.sleep(float(max_age) / 4)


if __name__ == "__main__":
    main()
