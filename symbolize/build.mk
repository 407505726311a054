# symbolize/: see DESIGN.md
