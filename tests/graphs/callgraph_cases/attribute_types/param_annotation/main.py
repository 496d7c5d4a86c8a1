class Printer:
    def render(self, doc):
        return doc


class Scanner:
    def scan(self):
        return "page"


def process(printer: Printer, scanner: Scanner):
    page = scanner.scan()
    return printer.render(page)


def helper(p: Printer):
    return p.render("x")


helper(Printer())
