def compute_limit():
    return 100


def build_table():
    class Config:
        LIMIT = compute_limit()

        def show(self):
            return self.LIMIT

    return Config


class Settings:
    DEFAULT = compute_limit()

    def value(self):
        return self.DEFAULT


build_table()
