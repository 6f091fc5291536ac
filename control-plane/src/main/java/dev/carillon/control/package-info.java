package dev.carillon.control;
