// The translation unit that carries the precompiled header (CMakeLists.txt, FLOTILLA_PCH).
