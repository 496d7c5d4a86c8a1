from base import Handler


class AuthHandler(Handler):
    def __init__(self):
        super().__init__("auth")

    def handle(self, request):
        checked = check(request)
        return super().handle(checked)


def check(request):
    return request


AuthHandler().handle("r")
