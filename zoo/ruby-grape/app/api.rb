# frozen_string_literal: true
require 'grape'
require 'rack/utils'

module PetStore
  # In-memory store; Puma runs a single process, so a mutex is enough.
  class Store
    def initialize
      @pets = []
      @next_id = 1
      @lock = Mutex.new
    end

    def add(attrs)
      @lock.synchronize do
        pet = { id: @next_id }.merge(attrs)
        @next_id += 1
        @pets << pet
        pet
      end
    end

    def list(status: nil, limit: 20)
      @lock.synchronize do
        pets = status ? @pets.select { |p| p[:status] == status } : @pets
        pets.first(limit)
      end
    end

    def find(id)
      @lock.synchronize { @pets.find { |p| p[:id] == id } }
    end
  end

  STATUSES = %w[available pending sold].freeze

  class API < Grape::API
    version 'v1', using: :path
    format :json
    content_type :json, 'application/json'
    default_format :json

    helpers do
      def store
        PetStore::API.store
      end

      def api_error!(status, code, message)
        error!({ code: code, message: message, status: status }, status)
      end

      def authenticate!
        expected = ENV.fetch('API_KEY')
        header = headers['Authorization'].to_s
        scheme, token = header.split(' ', 2)
        ok = scheme && scheme.casecmp?('Bearer') && token &&
             Rack::Utils.secure_compare(token.strip, expected)
        api_error!(401, 'unauthorized', 'Missing or invalid API key') unless ok
      end
    end

    class << self
      def store
        @store ||= PetStore::Store.new
      end
    end

    rescue_from Grape::Exceptions::ValidationErrors do |e|
      error!({ code: 'bad_request', message: e.full_messages.join(', '), status: 400 }, 400)
    end

    rescue_from :all do |e|
      warn "#{e.class}: #{e.message}"
      error!({ code: 'internal_error', message: 'Internal server error', status: 500 }, 500)
    end

    before do
      authenticate!
    end

    resource :pets do
      desc 'List all animals', nickname: 'listPets', tags: ['animals']
      params do
        optional :limit, type: Integer, default: 20, values: 1..100
        optional :status, type: String, values: PetStore::STATUSES
      end
      get do
        store.list(status: params[:status], limit: params[:limit])
      end

      desc 'Add an animal', nickname: 'createPet', tags: ['animals']
      params do
        requires :name, type: String
        requires :categoryId, type: Integer
        optional :status, type: String, values: PetStore::STATUSES
      end
      post do
        attrs = declared(params, include_missing: false)
        fields = { name: attrs[:name], categoryId: attrs[:categoryId] }
        fields[:status] = attrs[:status] if attrs.key?(:status)
        pet = store.add(fields)
        status 201
        pet
      end

      desc 'Get an animal (deprecated)', nickname: 'getPet', tags: ['animals']
      params do
        requires :petId, type: Integer
      end
      get ':petId' do
        header 'Deprecation', 'true'
        header 'Sunset', 'Thu, 05 Dec 2030 00:00:00 GMT'
        pet = store.find(params[:petId])
        api_error!(404, 'not_found', 'The requested resource could not be found') unless pet
        pet
      end
    end
  end
end
