class Query:
    def __init__(self):
        self.parts = []

    def where(self, cond):
        self.parts = self.parts + [cond]
        return self

    def limit(self, n):
        self.max_rows = n
        return self

    def build(self):
        return self.parts


Query().where("a").where("b").limit(1).build()
