class Report:
    def render(self):
        return "report"


def make_report():
    return Report()


make_report().render()
