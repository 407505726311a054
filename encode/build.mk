# encode/: see DESIGN.md
