class Connection:
    def execute(self):
        return 1


class Pool:
    def acquire(self):
        conn = Connection()
        return conn


def run_query(pool):
    return pool.acquire().execute()


run_query(Pool())
