"""What the hub answers, by feature: typed (attrs) answers built from storage records, turned into JSON by one
converter (:mod:`~hub_app.answers.wire`) for every door."""
