class Session:
    def query(self):
        return "rows"


class Pool:
    def __enter__(self):
        return Session()

    def __exit__(self, *exc):
        return False

    def query(self):
        return "pool"


with Pool() as session:
    session.query()
