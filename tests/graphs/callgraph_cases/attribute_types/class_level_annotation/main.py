class Database:
    def query(self, sql):
        return sql


class Repository:
    db: Database

    def find(self, ident):
        return self.db.query("select")


class UserRepository(Repository):
    def find_all(self):
        return self.db.query("select all")


UserRepository()
