function on_start() log("café") end
