# render/: see DESIGN.md
