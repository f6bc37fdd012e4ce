# frozen_string_literal: true
require_relative 'app/api'

run PetStore::API
