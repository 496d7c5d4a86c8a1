class Model:
    @classmethod
    def table(cls):
        return "models"


class User(Model):
    @classmethod
    def table(cls):
        return "users_" + super().table()


User.table()
