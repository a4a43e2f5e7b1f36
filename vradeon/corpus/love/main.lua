-- SPDX-License-Identifier: MIT
-- A scripted 2D scene for the virtual radeon: LOVE's sprite batches, meshes, particles,
-- text and canvases (render targets), with a texture made every 20 frames and the canvases
-- remade at a new size every 120 (a level change: buffers created and dropped). Time is the
-- frame number, never the clock, so every run draws the same; it quits after FRAMES frames
-- (the first argument, default 600).
local frames = tonumber(arg[2] or arg[1] or "") or 600
local frame = 0
local W, H = 1024, 768
local tex, batch, canvas, blur, mesh, particles, font

-- A 256x256 pattern that changes with n: new pixels, so a new texture upload.
local function pattern(n)
  local d = love.image.newImageData(256, 256)
  d:mapPixel(function(x, y)
    local v = ((x + n * 7) % 64 < 32) ~= ((y + n * 3) % 64 < 32)
    return v and 1 or 0.2, (x % 256) / 255, (y % 256) / 255, 1
  end)
  return love.graphics.newImage(d)
end

local function canvases(n)
  local s = 1 + (n % 3) * 0.25 -- 1, 1.25, 1.5 times 512x384
  canvas = love.graphics.newCanvas(math.floor(512 * s), math.floor(384 * s))
  blur = love.graphics.newCanvas(math.floor(256 * s), math.floor(192 * s))
end

function love.load()
  love.math.setRandomSeed(1)
  font = love.graphics.newFont(18)
  tex = pattern(0)
  batch = love.graphics.newSpriteBatch(tex, 2000, "stream")
  local v = { { 0, 0, 0.5, 0.5, 1, 1, 1, 1 } }
  for i = 0, 64 do
    local a = i / 64 * 2 * math.pi
    v[#v + 1] = { math.cos(a) * 60, math.sin(a) * 60, 0.5 + math.cos(a) / 2, 0.5 + math.sin(a) / 2,
                  0.5 + math.cos(a) / 2, 0.5, 0.5 + math.sin(a) / 2, 1 }
  end
  mesh = love.graphics.newMesh(v, "fan", "static")
  mesh:setTexture(tex)
  particles = love.graphics.newParticleSystem(tex, 4000)
  particles:setParticleLifetime(1, 3)
  particles:setEmissionRate(1200)
  particles:setSizes(0.05, 0.15, 0.02)
  particles:setSpeed(50, 250)
  particles:setSpread(2 * math.pi)
  particles:setColors(1, 1, 1, 1, 1, 0.5, 0.2, 0)
  canvases(0)
end

function love.update()
  frame = frame + 1
  if frame > frames then
    love.event.quit()
    return
  end
  if frame % 20 == 0 then
    tex:release()
    tex = pattern(frame)
    batch:setTexture(tex)
    mesh:setTexture(tex)
    particles:setTexture(tex)
  end
  if frame % 120 == 0 then
    canvas:release()
    blur:release()
    canvases(frame / 120)
  end
  particles:update(1 / 60)
end

function love.draw()
  local t = frame / 60
  -- The scene into a canvas: 2000 sprites of the batch, refilled every frame.
  love.graphics.setCanvas(canvas)
  love.graphics.clear(0.1, 0.1, 0.15)
  batch:clear()
  local cw, ch = canvas:getDimensions()
  for i = 1, 2000 do
    local a = i * 0.618 + t
    batch:add(cw / 2 + math.cos(a) * (i % 300), ch / 2 + math.sin(a * 1.3) * (i % 200), a, 0.08, 0.08, 128, 128)
  end
  love.graphics.draw(batch)
  love.graphics.push()
  love.graphics.translate(cw / 2, ch / 2)
  love.graphics.draw(particles)
  love.graphics.pop()
  -- A reduced copy (a blur pass's target), then both onto the screen with meshes and text.
  love.graphics.setCanvas(blur)
  love.graphics.clear(0, 0, 0, 0)
  love.graphics.draw(canvas, 0, 0, 0, blur:getWidth() / cw, blur:getHeight() / ch)
  love.graphics.setCanvas()
  love.graphics.clear(0, 0, 0)
  love.graphics.draw(canvas, 0, 0, 0, W / cw, H / ch)
  love.graphics.setBlendMode("add")
  love.graphics.draw(blur, W / 2, H / 2, t * 0.2, W / blur:getWidth() / 2, H / blur:getHeight() / 2,
                     blur:getWidth() / 2, blur:getHeight() / 2)
  love.graphics.setBlendMode("alpha")
  for i = 0, 11 do
    love.graphics.draw(mesh, 80 + i * 80, 680 + math.sin(t * 2 + i) * 30, t + i)
  end
  love.graphics.setFont(font)
  love.graphics.print(string.format("vramlab scene: frame %d of %d", frame, frames), 20, 20)
end
