-- SPDX-License-Identifier: MIT
-- The window is SDL's offscreen pbuffer; no audio, joystick or physics: only what draws.
function love.conf(t)
  t.identity = "vramlab-scene"
  t.window.title = "vramlab scene"
  t.window.width, t.window.height = 1024, 768
  t.window.vsync = 0
  t.modules.audio, t.modules.sound = false, false
  t.modules.joystick, t.modules.physics, t.modules.video = false, false, false
end
