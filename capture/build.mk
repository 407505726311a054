# capture/: see DESIGN.md
