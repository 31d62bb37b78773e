"""The ``human`` render mode's window: the drawn table shown with pygame, one frame a step
at the env's ``render_fps``."""

from __future__ import annotations

from cardenv.drawing.frame import FRAME_SIZE, draw_on, import_pygame
from cardenv.engine.table_view import TableView


class TableWindow:
    """A pygame window that shows one table view at a time."""

    def __init__(self, title: str, fps: float):
        pygame = import_pygame()
        pygame.display.init()
        self.surface = pygame.display.set_mode(FRAME_SIZE)
        pygame.display.set_caption(title)
        self.clock = pygame.time.Clock()
        self.fps = fps

    def show(self, view: TableView) -> None:
        pygame = import_pygame()
        draw_on(self.surface, view)
        pygame.event.pump()  # keeps the window answering its system
        pygame.display.flip()
        self.clock.tick(self.fps)

    def close(self) -> None:
        import_pygame().display.quit()
