"""What the screens and widgets share, with no Textual in it: values as text (:mod:`.present`), the explanation
pane's content (:mod:`.explain`), where a session starts and writes (:mod:`.session`), the switch report's data
(:mod:`.switch`) and the start-up garbage-collection pause (:mod:`.startup_gc`)."""
