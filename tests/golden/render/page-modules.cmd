# The page script's modules and their interfaces (render/flame-*.js, in
# render/build.mk's order): no module reaches another's names.
scripts/check-page-modules
