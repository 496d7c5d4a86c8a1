class AppError(Exception):
    def __init__(self, message):
        super().__init__(message)
        self.message = message

    def describe(self):
        return self.message


def fail():
    raise AppError("boom")


try:
    fail()
except AppError as error:
    error.describe()
