"""The most threads ever inside a gate at once: the check both gates' tests make (TrainingGate's
slots in test_jobs, Turns' slots in test_turns)."""
import threading
import time


def peak_inside(enter, threads: int = 8, rounds: int = 1, hold_s: float = 0.01, join_s: float = 30.0) -> int:
    """`threads` threads each pass `rounds` times through `with enter():`, holding it hold_s;
    returns how many were inside at once, at most."""
    lock, inside, most = threading.Lock(), [0], [0]

    def run():
        for _ in range(rounds):
            with enter():
                with lock:
                    inside[0] += 1
                    most[0] = max(most[0], inside[0])
                time.sleep(hold_s)
                with lock:
                    inside[0] -= 1

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for th in workers:
        th.start()
    for th in workers:
        th.join(join_s)
    return most[0]
